cbuffer Params : register(b0)
{
    uint count;
    float bias;
};
RWStructuredBuffer<float> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    bias = bias * 0.5;
    Output[id.x] = bias;
}
