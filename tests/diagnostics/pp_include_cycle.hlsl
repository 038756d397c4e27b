#include "include/cycle_a.hlsli"
[numthreads(64, 1, 1)]
void main() {}
