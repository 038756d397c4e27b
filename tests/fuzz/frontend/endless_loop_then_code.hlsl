// Found by the frontend fuzz target: a `for (;;)` loop that nothing leaves,
// with code after it. The loop's exit had no way in, so the code after it
// used values defined before the loop from a block they did not dominate
// (the IR verifier refused the lowering: E0400 in a checked build).
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(32, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
  uint acc = 0;
  for (uint k = 0; ; k++) {
    if (k == (i >> 8))
      continue;
    acc += 100;
  }
  Out[i] = acc;
}
