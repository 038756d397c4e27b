RWStructuredBuffer<uint> Output : register(u0);

[numthreads(64, 1, 1)]
void main(float3 id : SV_DispatchThreadID, uint pos : SV_Position)
{
    Output[0] = 1;
}
