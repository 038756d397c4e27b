// Issue 19: a warning on a line that `#line 0` numbers 0 panicked the
// diagnostic renderer ("argument of integer logarithm must be positive").
RWStructuredBuffer<int> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    float x = 1.5;
#line 0
    int i = x;
    Out[0] = i;
}
