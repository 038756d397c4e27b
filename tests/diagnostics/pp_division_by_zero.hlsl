#define GROUP 64
#define LANES 0
#if GROUP / LANES > 2
#define MANY_WAVES
#endif
RWStructuredBuffer<float> Out : register(u0);
[numthreads(GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = 1.0; }
