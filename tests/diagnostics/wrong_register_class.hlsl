StructuredBuffer<float> Input;
RWStructuredBuffer<float> Output : register(t0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Output[id.x] = Input[id.x];
}
