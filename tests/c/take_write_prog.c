/* Three write() calls of 3 bytes to the file named by argv[1] (ctest intercept_take). */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 1;
  for (int k = 0; k < 3; k++)
    if (write(fd, "abc", 3) != 3) return 1;
  return close(fd) ? 1 : 0;
}
