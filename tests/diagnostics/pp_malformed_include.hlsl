#include common.hlsli
[numthreads(64, 1, 1)]
void main() {}
