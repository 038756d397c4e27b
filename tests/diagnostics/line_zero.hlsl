// A warning on a line that `#line 0` numbers 0: the header says line 0 and
// the excerpt renders (its gutter cannot show 0, so it shows 1).
RWStructuredBuffer<int> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
    float x = 1.5;
#line 0
    int i = x;
    Out[0] = i;
}
