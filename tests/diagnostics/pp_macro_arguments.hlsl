#define MAD(a, b, c) ((a) * (b) + (c))
RWStructuredBuffer<float> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = MAD(id.x, 2.0);
}
