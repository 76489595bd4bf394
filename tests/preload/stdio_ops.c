/* Known stdio I/O. Writes: 50 fwrite of 100 B, 10 fprintf of 6 B, 1 fputs of 6 B, 1 fputc.
 * Reads: 5 fread of 100 B, 1 fgets (a 6 B line), 1 fscanf, 1 fgetc. 2 opens, 2 closes,
 * 1 fseek, 1 fflush. Built twice by the tests: plain -O0 and -O2 -D_FORTIFY_SOURCE=2. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  char path[4096], buf[100], line[64];
  snprintf(path, sizeof path, "%s/stdio.txt", argv[1]);
  memset(buf, 'a', sizeof buf);
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  for (int k = 0; k < 50; k++) fwrite(buf, 1, sizeof buf, f);
  for (int k = 0; k < 10; k++) fprintf(f, "%05d\n", k);
  fputs("hello\n", f);
  fputc('x', f);
  fflush(f);
  fclose(f);
  f = fopen(path, "r");
  if (!f) return 2;
  for (int k = 0; k < 5; k++) fread(buf, 1, sizeof buf, f);
  fseek(f, 5000, SEEK_SET);
  fgets(line, sizeof line, f);
  int v = 0;
  fscanf(f, "%d", &v);
  fgetc(f);
  fclose(f);
  printf("value %d\n", v);
  return v != 1;
}
