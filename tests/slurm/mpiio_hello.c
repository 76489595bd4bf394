/* A small real MPI-IO program for checking an MPI launch under srun: every rank writes its
 * block of one shared file collectively, then prints where it ran.  Exit code 0 only if the
 * world has the expected size (argv[2], or SLURM_NTASKS) and the file has every rank's data,
 * so a launch that starts N singletons instead of one N-rank job fails instead of passing.
 * Usage: mpiio_hello FILE [EXPECTED_RANKS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 65536

int main(int argc, char **argv)
{
    static char buf[BLOCK];
    int rank, size, len, rc = 0;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_File fh;
    MPI_Offset fsize = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: mpiio_hello FILE [EXPECTED_RANKS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(buf, 'a' + rank % 26, sizeof buf);
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY,
                      MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_File_open(%s) failed\n", rank, argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_size(fh, 0); /* a file left by a bigger run must not pass the size check */
    MPI_File_write_at_all(fh, (MPI_Offset)rank * BLOCK, buf, BLOCK, MPI_BYTE,
                          MPI_STATUS_IGNORE);
    /* ROMIO may turn a non-interleaved collective write into independent ones, so the
     * other ranks' blocks are only visible after sync-barrier (MPI-IO consistency rules). */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_size(fh, &fsize);
    MPI_File_close(&fh);

    const char *want_s = argc > 2 ? argv[2] : getenv("SLURM_NTASKS");
    int want = want_s ? atoi(want_s) : size;
    const char *procid = getenv("SLURM_PROCID");
    printf("rank %d of %d on %s (SLURM_PROCID=%s SLURM_LOCALID=%s SLURM_NODEID=%s)\n",
           rank, size, host, procid ? procid : "-",
           getenv("SLURM_LOCALID") ? getenv("SLURM_LOCALID") : "-",
           getenv("SLURM_NODEID") ? getenv("SLURM_NODEID") : "-");
    if (size != want) {
        fprintf(stderr, "rank %d: world size %d, expected %d (each rank started alone?)\n",
                rank, size, want);
        rc = 3;
    } else if (fsize != (MPI_Offset)size * BLOCK) {
        fprintf(stderr, "rank %d: file size %lld, expected %lld\n", rank, (long long)fsize,
                (long long)size * BLOCK);
        rc = 4;
    }
    MPI_Finalize();
    return rc;
}
