"""File systems by their statfs(2) f_type magic: the one table pario reads them from (linux/magic.h,
ROMIO's ad_fstype.c and the vendors' client headers). `pario stack` and the profiler both name a
file system from it."""
from __future__ import annotations

MAGIC = {
    0x0BD00BD0: "lustre", 0x47504653: "gpfs", 0x19830326: "beegfs", 0x6969: "nfs",
    0x00C36400: "cephfs", 0xEF53: "ext4", 0x58465342: "xfs", 0x01021994: "tmpfs",
    0x9123683E: "btrfs", 0x2FC12FC1: "zfs", 0x65735546: "fuse", 0x794C7630: "overlayfs",
    0xFF534D42: "cifs", 0xFE534D42: "smb2", 0xAAD7AAEA: "panfs", 0x20030528: "pvfs2",
    0x858458F6: "ramfs", 0x73717368: "squashfs", 0x5346544E: "ntfs", 0x4D44: "vfat",
    0x6E667364: "nfsd", 0x9FA0: "proc", 0x62656572: "sysfs", 0x5346414F: "afs",
}
# The file systems whose files are striped over servers (what `pario stack` calls parallel).
PARALLEL = {"lustre", "gpfs", "beegfs", "cephfs", "panfs", "pvfs2"}


def fs_name(magic: int) -> str:
    """The name of a statfs magic, or 'unknown (0x...)'."""
    return MAGIC.get(magic, f"unknown (0x{magic:x})")
