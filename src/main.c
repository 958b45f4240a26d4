#include <stdio.h>
int main(void) { puts("kcarry"); return 0; }
