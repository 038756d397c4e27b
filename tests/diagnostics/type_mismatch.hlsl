RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 uv = float2(id.x, id.y);
    float3 color = uv;
    Out[id.x] = color.x;
}
