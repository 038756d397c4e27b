#define GROUP 64
#if GROUP > 32 &&
#define WIDE 1
#endif
RWStructuredBuffer<float> Out : register(u0);
[numthreads(GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = 1.0; }
