#include "include/bad_utf16.hlsli"
[numthreads(64, 1, 1)]
void main() {}
