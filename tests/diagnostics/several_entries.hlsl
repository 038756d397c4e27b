RWStructuredBuffer<uint> Output : register(u0);

[numthreads(64, 1, 1)]
void clear(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = 0;
}

[numthreads(64, 1, 1)]
void fill(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = id.x;
}
