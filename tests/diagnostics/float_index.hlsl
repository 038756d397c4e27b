StructuredBuffer<float> Table : register(t0);
RWStructuredBuffer<float> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float t = id.x * 0.5;
    Output[id.x] = Table[t];
}
