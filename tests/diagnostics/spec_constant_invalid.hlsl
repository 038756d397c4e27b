// Specialization constants must be `const` scalars (bool, int, uint, float) with a constant
// default value, and `vk::constant_id` takes one integer (E0223).
cbuffer Params : register(b0) { uint n; };
[[vk::constant_id(0)]] uint NotConst = 1;
[[vk::constant_id(1)]] const float3 NotScalar = 1;
[[vk::constant_id(2)]] const uint NoDefault;
[[vk::constant_id(3)]] const uint NotConstant = n;
[[vk::constant_id()]] const uint NoId = 2;
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    Out[i] = NotConst + NotConstant + NoId + NoDefault;
}
