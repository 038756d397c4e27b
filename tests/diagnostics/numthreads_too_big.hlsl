RWStructuredBuffer<uint> Output : register(u0);

[numthreads(32, 32, 2)]
void main(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = id.y;
}
