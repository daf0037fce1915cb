package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/internal/cli/benchcmd"
	"github.com/worksteal/worksteal/internal/simlab"
	"github.com/worksteal/worksteal/policy"
)

// Dynamic shell completion: cobra's "completion" command writes a script
// for bash, zsh, fish or PowerShell that asks the binary itself (the hidden
// __complete command) for candidates, so the values below complete as the
// binary knows them. They are registered here, in one table, rather than
// in each command's file.

// flagValues lists, per command path and flag, the values a flag takes.
func flagValues() map[string]map[string]func() []string {
	fixed := func(v ...string) func() []string { return func() []string { return v } }
	victims := func() []string {
		var out []string
		for v := policy.Random; v <= policy.Locality; v++ {
			out = append(out, v.String())
		}
		return out
	}
	traceWorkloads := fixed("fib", "uts", "tree")
	return map[string]map[string]func() []string{
		"worksteal sim": {
			"victim":    victims,
			"scheduler": fixed(simlab.Schedulers()...),
			"amount":    fixed(policy.StealOne.String(), policy.StealHalf.String()),
			"idle":      fixed(simlab.IdleModes()...),
			"sweep": func() []string {
				var out []string
				for _, p := range simlab.SweepParams() {
					out = append(out, p+"=")
				}
				return out
			},
		},
		"worksteal run": {
			"order":    fixed("auto", "input", "lpt"),
			"progress": fixed("auto", "bar", "lines", "none"),
		},
		"worksteal bench": {
			"workloads": bench.Workloads,
			"impls":     benchcmd.ImplNames,
			"progress":  fixed("auto", "bar", "lines", "none"),
		},
		"worksteal trace record":  {"workload": traceWorkloads},
		"worksteal trace profile": {"workload": traceWorkloads},
	}
}

// registerCompletions attaches the completion functions to the commands of
// root that exist (a command missing from the tree is skipped).
func registerCompletions(root *cobra.Command) {
	byPath := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		byPath[c.CommandPath()] = c
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for path, flags := range flagValues() {
		cmd := byPath[path]
		if cmd == nil {
			continue
		}
		for name, values := range flags {
			if cmd.Flags().Lookup(name) == nil {
				continue
			}
			directive := cobra.ShellCompDirectiveNoFileComp
			if name == "sweep" {
				directive |= cobra.ShellCompDirectiveNoSpace
			}
			_ = cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return withPrefix(values(), toComplete), directive
			})
		}
	}
	if cmd := byPath["worksteal sim"]; cmd != nil && cmd.ValidArgsFunction == nil {
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, p := range simlab.Presets() {
				names = append(names, p.Name+"\t"+p.Description)
			}
			return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	if cmd := byPath["worksteal bench cell"]; cmd != nil && cmd.ValidArgsFunction == nil {
		// IMPL WORKLOAD SIZE THREADS [REPS [WARM]]: the first two are names.
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			switch len(args) {
			case 0:
				return withPrefix(benchcmd.ImplNames(), toComplete), cobra.ShellCompDirectiveNoFileComp
			case 1:
				return withPrefix(bench.Workloads(), toComplete), cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
	}
}

// withPrefix keeps the candidates that start with prefix (the part before
// a tab is the value; after it, the description).
func withPrefix(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		v, _, _ := strings.Cut(c, "\t")
		if strings.HasPrefix(v, prefix) {
			out = append(out, c)
		}
	}
	return out
}
