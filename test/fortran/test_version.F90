! SPDX-License-Identifier: BSD-3-Clause
! The Fortran version routines of both modules agree with the C library
! (the version in dmesh_version.h, the build text's first line). No MPI.
program test_version
  use dmesh, only: dmesh_get_version, dmesh_get_build_info, DMESH_SUCCESS
  use dmesh_f08, only: v08 => dmesh_get_version
  implicit none
  integer :: major, minor, patch, m2, n2, p2, ierr
  character(len=:), allocatable :: text
  character(len=32) :: expected

  call dmesh_get_version(major, minor, patch, ierr)
  if (ierr /= DMESH_SUCCESS) stop 1
  call v08(m2, n2, p2)
  if (m2 /= major .or. n2 /= minor .or. p2 /= patch) stop 2
  write (expected, '("dmesh ", i0, ".", i0, ".", i0)') major, minor, patch
  if (trim(expected) /= DMESH_EXPECTED) stop 3
  call dmesh_get_build_info(text, ierr)
  if (ierr /= DMESH_SUCCESS) stop 4
  if (index(text, trim(expected) // new_line('a')) /= 1) stop 5
  if (index(text, new_line('a') // "MPI: ") == 0) stop 6
  print '(a)', text
end program test_version
