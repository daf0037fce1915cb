package policy

import (
	"fmt"
	"slices"
	"testing"
)

func TestGroupsOfMembersAndEvenGroups(t *testing.T) {
	g, err := NewGroups([]int{0, 1, 0, 2})
	if err != nil || g.Len() != 3 || !slices.Equal(g.Members(0), []int{0, 2}) || g.Of(3) != 2 || g.Of(99) != 0 {
		t.Fatalf("NewGroups: %v %v", g, err)
	}
	if _, err := NewGroups([]int{0, -1}); err == nil {
		t.Fatal("NewGroups accepted a negative group")
	}
	var none *Groups
	if none.Len() != 1 || none.Of(5) != 0 || none.Members(0) != nil {
		t.Fatal("nil Groups is not one group")
	}
	e := EvenGroups(5, 2)
	if got := fmt.Sprint(e.Members(0), e.Members(1), e.Members(2)); got != "[0 1] [2 3] [4]" {
		t.Fatalf("EvenGroups(5, 2) = %s", got)
	}
}
