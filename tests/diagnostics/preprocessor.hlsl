#define GROUP_SIZE 64
RWStructuredBuffer<uint> Output : register(u0);

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = id.x;
}
