// Compiles, with a warning: the float result is truncated to int.
cbuffer Params : register(b0)
{
    float scale;
};
RWStructuredBuffer<int> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int scaled = id.x * scale;
    Output[id.x] = scaled;
}
