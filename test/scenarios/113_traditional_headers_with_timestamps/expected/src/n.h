#define N 2
