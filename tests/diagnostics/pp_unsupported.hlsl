#include_next <limits.hlsli>
[numthreads(64, 1, 1)]
void main() {}
