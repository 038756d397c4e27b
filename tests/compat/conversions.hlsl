// Conversions that the published backends read the other way round from
// wave-emu 0.1.2 (`cvt_f32_f16`, `cvt_f16_f32`, `cvt_f64_f32`, `cvt_f32_f64`):
// under wave-0.1.2 they are integer bit work and one exact float operation.
RWStructuredBuffer<uint> U : register(u0);
RWStructuredBuffer<float> F : register(u1);
RWStructuredBuffer<double> D : register(u2);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint i = id.x;
  F[i] = f16tof32(U[i]);
  U[i + 32] = f32tof16(F[i + 32]);
  D[i] = (double)F[i + 64] * 3.0;
  F[i + 96] = (float)D[i + 32];
}
