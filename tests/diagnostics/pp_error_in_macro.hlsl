#include "include/store.hlsli"
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    STORE(id.x, 2.0);
}
