#define SIZE 64
RWStructuredBuffer<float> Out : register(u0);
[numthreads(SIZE, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = 1.0 # 2.0;
}
