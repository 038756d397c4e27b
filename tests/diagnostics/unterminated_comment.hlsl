RWStructuredBuffer<uint> Output : register(u0);

/* Writes the thread index.
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = id.x;
}
