StructuredBuffer<float> Input : register(t0);
RWStructuredBuffer<float> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Input[id.x] = Input[id.x] * 2.0;
    Output[id.x] = Input[id.x];
}
