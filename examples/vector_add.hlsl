// C[i] = A[i] + B[i], one thread per element.
StructuredBuffer<int> A : register(t0);
StructuredBuffer<int> B : register(t1);
RWStructuredBuffer<int> C : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    C[tid.x] = A[tid.x] + B[tid.x];
}
