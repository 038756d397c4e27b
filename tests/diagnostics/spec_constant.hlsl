// Compiles, with notes: Vulkan specialization constants take their default values (W0208).
[[vk::constant_id(0)]] const uint GroupCount = 4;
[[vk::constant_id(1)]] const bool UseSquares = true;
[[vk::constant_id(2)]] const float Scale = 0.5;
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    float v = UseSquares ? i * i : i;
    Out[i] = v * Scale * GroupCount;
}
