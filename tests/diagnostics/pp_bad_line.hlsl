#line 0x10 "generated.hlsl"
[numthreads(64, 1, 1)]
void main() {}
