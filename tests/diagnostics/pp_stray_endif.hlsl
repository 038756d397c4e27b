#ifdef FAST
#define GROUP 128
#endif
#endif
#define GROUP 64
RWStructuredBuffer<float> Out : register(u0);
[numthreads(GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = 1.0; }
