RWStructuredBuffer<float> Out : register(u0);
#line 100 "generated.hlsl"
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = missing;
}
