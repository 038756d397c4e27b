// A struct holding a buffer lives in registers only; in a list, buffers fill buffer fields.
struct Tensor { StructuredBuffer<float> data; uint length; };
StructuredBuffer<float> X : register(t0);
RWStructuredBuffer<float> O : register(u0);
groupshared Tensor Shared;
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Tensor t = { 64, X };
    O[id.x] = t.data[id.x];
}
