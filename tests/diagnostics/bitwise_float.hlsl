StructuredBuffer<float> Input : register(t0);
RWStructuredBuffer<uint> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float x = Input[id.x];
    Output[id.x] = x & 0xFF;
}
