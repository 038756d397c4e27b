// wavec: --max-registers 3
// Six buffers: the ABI passes their addresses in r0..r5, so no allocation
// fits 3 registers; the warning names the ABI as the binding limit, and the
// peak beyond it (the arguments stay in their registers until read).
StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
StructuredBuffer<float> C : register(t2);
StructuredBuffer<float> D : register(t3);
StructuredBuffer<float> E : register(t4);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    Out[i] = A[i] + B[i] + C[i] + D[i] + E[i];
}
