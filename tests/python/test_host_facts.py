"""The file system type a run records is the one the kernel mounted: `stat -f` names ext4 by its
superblock magic, which ext2, ext3 and ext4 share ("ext2/ext3"), so the mount table decides."""
from pario.platform import fsinfo, host


def test_fs_type_is_the_mounted_type(tmp_path):
    mounted = fsinfo.mount_of(str(tmp_path)).get("fstype")
    assert mounted, "no mount found for the test's directory in /proc/self/mountinfo"
    assert host.fs_type(str(tmp_path)) == mounted


def test_fs_type_of_a_directory_not_yet_made_is_its_parents(tmp_path):
    assert host.fs_type(str(tmp_path / "not" / "yet")) == fsinfo.mount_of(str(tmp_path)).get("fstype")
