RWStructuredBuffer<uint> Out : register(u0);
uint fib(uint n);
uint step2(uint n) { return fib(n - 1) + fib(n - 2); }
uint fib(uint n) { return n < 2 ? n : step2(n); }
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = fib(i); }
