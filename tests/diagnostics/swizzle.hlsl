RWStructuredBuffer<uint> Output : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 xy = id.xy;
    Output[xy.y * 64 + xy.x] = 1;
}
