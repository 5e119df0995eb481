package strategy

import (
	"errors"
	"testing"
)

func TestParseOperator(t *testing.T) {
	tests := []struct {
		in   string
		want Operator
	}{
		{"INTERSECT", Intersect}, {"and", Intersect}, {" And ", Intersect},
		{"UNION", Union}, {"or", Union},
		{"MINUS", Minus}, {"not", Minus}, {"MINUS_LEFT", Minus}, {"minus-left", Minus}, {"LMINUS", Minus}, {"left minus", Minus},
		{"RMINUS", RMinus}, {"MINUS_RIGHT", RMinus}, {"minus right", RMinus}, {"RIGHT_MINUS", RMinus},
		{"LONLY", LOnly}, {"left only", LOnly}, {"RONLY", ROnly}, {"right_only", ROnly},
		{"COLOCATE", Colocate}, {"colocate", Colocate},
	}
	for _, tt := range tests {
		got, err := ParseOperator(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseOperator(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "XOR", "AND NOT", "INTERSECTS", "minus minus"} {
		_, err := ParseOperator(bad)
		if !errors.Is(err, ErrInvalidOperator) {
			t.Errorf("ParseOperator(%q) error = %v, want ErrInvalidOperator", bad, err)
		}
		if _, ok := errors.AsType[*OperatorError](err); !ok {
			t.Errorf("ParseOperator(%q) error %T is not an *OperatorError", bad, err)
		}
	}
}

func TestOperatorsAreCanonical(t *testing.T) {
	for _, op := range Operators() {
		if got, err := ParseOperator(string(op)); err != nil || got != op {
			t.Errorf("ParseOperator(%q) = %q, %v", op, got, err)
		}
		if !op.Valid() {
			t.Errorf("%q.Valid() = false", op)
		}
		if op.Boolean() == (op == Colocate) {
			t.Errorf("%q.Boolean() = %v", op, op.Boolean())
		}
	}
	if Operator("AND").Valid() {
		t.Error(`an alias is not a canonical operator: Operator("AND").Valid() = true`)
	}
}

func TestParseStrand(t *testing.T) {
	tests := []struct {
		in   string
		want Strand
	}{
		{"", StrandBoth}, {"both", StrandBoth}, {"Both strands", StrandBoth}, {"either", StrandBoth},
		{"same", StrandSame}, {"same strand", StrandSame}, {"OPPOSITE", StrandOpposite}, {"opposite strand", StrandOpposite},
	}
	for _, tt := range tests {
		if got, err := ParseStrand(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseStrand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseStrand("up"); !errors.Is(err, ErrInvalidColocation) {
		t.Errorf(`ParseStrand("up") error = %v, want ErrInvalidColocation`, err)
	}
}
