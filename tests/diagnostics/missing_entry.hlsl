RWStructuredBuffer<uint> Output : register(u0);

void main(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = id.x;
}
