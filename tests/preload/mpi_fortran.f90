! A Fortran MPI program: every rank writes its rank into its own file (argument 1 + '.' + rank),
! then 4 KiB at its offset of one shared file (argument 1 + '.shared') with one collective
! MPI_File_write_at_all, and rank ABORTER (argument 2, -1 for none) calls MPI_Abort with error
! code 7 afterwards. Open MPI's Fortran bindings call the PMPI_ names, not the MPI_ ones.
program mpi_fortran
  use mpi
  implicit none
  integer :: ierr, rank, aborter, fh
  integer(kind=MPI_OFFSET_KIND) :: off
  integer :: buf(1024)
  character(len=4096) :: base, arg
  character(len=16) :: tag
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, base)
  call get_command_argument(2, arg)
  read (arg, *) aborter
  write (tag, '(I0)') rank
  open (10, file=trim(base)//'.'//trim(tag), form='unformatted', access='stream', status='replace')
  write (10) rank
  close (10)
  buf = rank
  call MPI_File_open(MPI_COMM_WORLD, trim(base)//'.shared', MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, &
                     fh, ierr)
  off = rank * 4096
  call MPI_File_write_at_all(fh, off, buf, 1024, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  if (rank == aborter) call MPI_Abort(MPI_COMM_WORLD, 7, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program mpi_fortran
