/* Runs a list of file operations and prints every result, so that a run with the buffer and one
 * without can be compared line by line (tests/python/test_buffer_property.py).
 *
 *   opsdriver OPSFILE DIR
 *
 * One operation per line; S is a slot (an open descriptor), F a file number (DIR/fF):
 *   open F FLAGS        FLAGS: r, w or rw, plus c (O_CREAT), t (O_TRUNC), a (O_APPEND)
 *   write S LEN SEED    pwrite S LEN SEED OFF    writev S LEN,LEN,... SEED    pwritev S LEN,... SEED OFF
 *   lseek S OFF WHENCE  read S LEN    pread S LEN OFF    fstat S    ftruncate S LEN
 *   fsync S             dup S         close S            pause      (prints "paused", waits for a line)
 *   fdatasync S         syncrange S   mmap S LEN (a shared mapping's checksum)    dup2 S T (onto slot T)
 *   statpath F          truncpath F LEN               flock S    fcntllock S      fopen F (a stream on F,
 *   fputs TEXT          fflush        fclose)         exit       _exit
 *   dup3 S T            readv S LEN   fallocate S LEN            syncfs S   sync
 *   sendfile S T LEN    copyfr S T LEN (LEN bytes from slot S's position into slot T)
 *   link F G (DIR/fG becomes a second name of DIR/fF)   fputc C   setvbuf (the stream unbuffered)
 *   stderr TEXT (written to descriptor 2)
 * Data bytes are SEED, SEED+1, ... so a misplaced byte shows in the files. Reads print a checksum
 * of what they read. Up to 8 slots; an operation on a slot not open prints "skip". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define NSLOT 8
static int slot[NSLOT];
static FILE *stream;

static unsigned sum(const unsigned char *p, ssize_t n) {
  unsigned h = 2166136261u;
  for (ssize_t k = 0; k < n; k++) h = (h ^ p[k]) * 16777619u;
  return h;
}

static void fill(unsigned char *p, size_t n, int seed) {
  for (size_t k = 0; k < n; k++) p[k] = (unsigned char)(seed + (int)k);
}

static void result(long long r) {
  if (r < 0) printf(" -> %lld errno %d\n", r, errno);
  else printf(" -> %lld\n", r);
}

static int get(int s) { return s >= 0 && s < NSLOT ? slot[s] : -1; }

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  FILE *ops = fopen(argv[1], "r");
  if (!ops) return 2;
  for (int k = 0; k < NSLOT; k++) slot[k] = -1;
  static unsigned char buf[1 << 20];
  char line[4096], op[32], a[1024];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, ops)) {
    int s = -1;
    long long x = 0, y = 0, z = 0;
    a[0] = 0;
    if (sscanf(line, "%31s", op) != 1) continue;
    printf("%s", strtok(line, "\n"));
    if (!strcmp(op, "pause")) {
      printf(" paused\n");
      char tmp[64];
      if (!fgets(tmp, sizeof tmp, stdin)) return 3;
      continue;
    }
    if (!strcmp(op, "exit")) exit(0);
    if (!strcmp(op, "sync")) { sync(); result(0); continue; }
    if (!strcmp(op, "stderr")) { result(write(2, line + 7, strlen(line + 7))); continue; }
    if (!strcmp(op, "link")) {
      int f, g;
      sscanf(line, "%*s %d %d", &f, &g);
      char from[4200], to[4200];
      snprintf(from, sizeof from, "%s/f%d", argv[2], f);
      snprintf(to, sizeof to, "%s/f%d", argv[2], g);
      result(link(from, to));
      continue;
    }
    if (!strcmp(op, "_exit")) _exit(0);
    if (!strcmp(op, "statpath") || !strcmp(op, "truncpath") || !strcmp(op, "fopen")) {
      int f;
      sscanf(line, "%*s %d %lld", &f, &x);
      char path[4200];
      snprintf(path, sizeof path, "%s/f%d", argv[2], f);
      struct stat st;
      if (op[0] == 's') {
        int r = stat(path, &st);
        if (r == 0) printf(" size %lld", (long long)st.st_size);
        result(r);
      } else if (op[0] == 't') {
        result(truncate(path, (off_t)x));
      } else {
        stream = fopen(path, "w");
        result(stream ? 0 : -1);
      }
      continue;
    }
    if (!strcmp(op, "fputs") || !strcmp(op, "fflush") || !strcmp(op, "fclose") || !strcmp(op, "fputc") ||
        !strcmp(op, "setvbuf")) {
      if (!stream) { printf(" skip\n"); continue; }
      if (!strcmp(op, "fputc")) result(fputc(line[6], stream));
      else if (op[0] == 's') result(setvbuf(stream, NULL, _IONBF, 0));
      else if (op[1] == 'p') result(fputs(line + 6, stream));
      else if (op[1] == 'f') result(fflush(stream));
      else result(fclose(stream)), stream = NULL;
      continue;
    }
    if (!strcmp(op, "open")) {
      int f;
      if (sscanf(line, "open %d %63s", &f, a) != 2) return 2;
      int free_slot = -1;
      for (int k = 0; k < NSLOT && free_slot < 0; k++)
        if (slot[k] < 0) free_slot = k;
      if (free_slot < 0) { printf(" skip\n"); continue; }
      int fl = strchr(a, 'w') ? (strchr(a, 'r') ? O_RDWR : O_WRONLY) : O_RDONLY;
      if (strchr(a, 'c')) fl |= O_CREAT;
      if (strchr(a, 't')) fl |= O_TRUNC;
      if (strchr(a, 'a')) fl |= O_APPEND;
      char path[4200];
      snprintf(path, sizeof path, "%s/f%d", argv[2], f);
      int fd = open(path, fl, 0644);
      if (fd >= 0) slot[free_slot] = fd;
      printf(" slot %d", fd >= 0 ? free_slot : -1);
      result(fd >= 0 ? 0 : -1);
      continue;
    }
    sscanf(line, "%*s %d", &s);
    int fd = get(s);
    if (fd < 0) { printf(" skip\n"); continue; }
    if (!strcmp(op, "write")) {
      sscanf(line, "%*s %*d %lld %lld", &x, &y);
      fill(buf, (size_t)x, (int)y);
      result(write(fd, buf, (size_t)x));
    } else if (!strcmp(op, "pwrite")) {
      sscanf(line, "%*s %*d %lld %lld %lld", &x, &y, &z);
      fill(buf, (size_t)x, (int)y);
      result(pwrite(fd, buf, (size_t)x, (off_t)z));
    } else if (!strcmp(op, "writev") || !strcmp(op, "pwritev")) {
      sscanf(line, "%*s %*d %1023s %lld %lld", a, &y, &z);
      struct iovec iov[16];
      int n = 0;
      size_t used = 0;
      for (char *t = strtok(a, ","); t && n < 16; t = strtok(NULL, ",")) {
        size_t len = (size_t)atoll(t);
        fill(buf + used, len, (int)y + n);
        iov[n].iov_base = buf + used;
        iov[n++].iov_len = len;
        used += len;
      }
      result(op[0] == 'p' ? pwritev(fd, iov, n, (off_t)z) : writev(fd, iov, n));
    } else if (!strcmp(op, "lseek")) {
      sscanf(line, "%*s %*d %lld %lld", &x, &y);
      result(lseek(fd, (off_t)x, y == 0 ? SEEK_SET : y == 1 ? SEEK_CUR : SEEK_END));
    } else if (!strcmp(op, "read") || !strcmp(op, "pread")) {
      sscanf(line, "%*s %*d %lld %lld", &x, &y);
      ssize_t r = op[0] == 'p' ? pread(fd, buf, (size_t)x, (off_t)y) : read(fd, buf, (size_t)x);
      if (r >= 0) printf(" sum %08x", sum(buf, r));
      result(r);
    } else if (!strcmp(op, "fstat")) {
      struct stat st;
      int r = fstat(fd, &st);
      if (r == 0) printf(" size %lld", (long long)st.st_size);
      result(r);
    } else if (!strcmp(op, "ftruncate")) {
      sscanf(line, "%*s %*d %lld", &x);
      result(ftruncate(fd, (off_t)x));
    } else if (!strcmp(op, "readv")) {
      sscanf(line, "%*s %*d %lld", &x);
      struct iovec iov[2] = {{buf, (size_t)x / 2}, {buf + x / 2, (size_t)(x - x / 2)}};
      ssize_t r = readv(fd, iov, 2);
      if (r >= 0) printf(" sum %08x", sum(buf, r));
      result(r);
    } else if (!strcmp(op, "fallocate")) {
      sscanf(line, "%*s %*d %lld", &x);
      result(fallocate(fd, 0, 0, (off_t)x));
    } else if (!strcmp(op, "syncfs")) {
      result(syncfs(fd));
    } else if (!strcmp(op, "sendfile") || !strcmp(op, "copyfr") || !strcmp(op, "dup3")) {
      int t;
      sscanf(line, "%*s %*d %d %lld", &t, &x);
      int tfd = get(t);
      if (tfd < 0) { printf(" skip\n"); continue; }
      if (op[0] == 's') result(sendfile(tfd, fd, NULL, (size_t)x));
      else if (op[0] == 'c') result(copy_file_range(fd, NULL, tfd, NULL, (size_t)x, 0));
      else result(dup3(fd, tfd, O_CLOEXEC));
    } else if (!strcmp(op, "fsync")) {
      result(fsync(fd));
    } else if (!strcmp(op, "fdatasync")) {
      result(fdatasync(fd));
    } else if (!strcmp(op, "syncrange")) {
      result(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE));
    } else if (!strcmp(op, "flock")) {
      result(flock(fd, LOCK_EX));
    } else if (!strcmp(op, "fcntllock")) {
      struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
      result(fcntl(fd, F_SETLK, &fl));
    } else if (!strcmp(op, "mmap")) {
      sscanf(line, "%*s %*d %lld", &x);
      void *m = mmap(NULL, (size_t)x, PROT_READ, MAP_SHARED, fd, 0);
      if (m != MAP_FAILED) printf(" sum %08x", sum(m, (ssize_t)x)), munmap(m, (size_t)x);
      result(m == MAP_FAILED ? -1 : 0);
    } else if (!strcmp(op, "dup2")) {
      int t;
      sscanf(line, "%*s %*d %d", &t);
      int tfd = get(t);
      if (tfd < 0) { printf(" skip\n"); continue; }
      result(dup2(fd, tfd));
    } else if (!strcmp(op, "dup")) {
      int free_slot = -1;
      for (int k = 0; k < NSLOT && free_slot < 0; k++)
        if (slot[k] < 0) free_slot = k;
      if (free_slot < 0) { printf(" skip\n"); continue; }
      int r = dup(fd);
      if (r >= 0) slot[free_slot] = r;
      printf(" slot %d", r >= 0 ? free_slot : -1);
      result(r >= 0 ? 0 : -1);
    } else if (!strcmp(op, "close")) {
      slot[s] = -1;
      result(close(fd));
    } else {
      printf(" unknown\n");
    }
  }
  return 0;
}
