# Merge the CSVs of repeated runs of one benchmark into one CSV holding, per
# row key (the first three columns: bench,case,size), the median over runs
# of every numeric column. Comment lines of the first file are kept, and
# one more says how many runs were merged.
#   awk -F, -f median_runs.awk run1.csv run2.csv run3.csv > merged.csv
# Works with mawk and gawk (no gawk extensions).

BEGIN { FS = ","; OFS = ","; nkeys = 0; nfiles = 0 }

FNR == 1 { nfiles++ }

/^#/ {
    if (nfiles == 1)
        comments[++ncomments] = $0
    next
}

$1 == "bench" {
    if (nfiles == 1)
        header = $0
    next
}

NF >= 3 {
    key = $1 FS $2 FS $3
    if (!(key in seen)) {
        seen[key] = 1
        order[++nkeys] = key
        width[key] = NF
    }
    n = ++count[key]
    for (i = 4; i <= NF; i++)
        val[key, i, n] = $i
}

# The median keeps the run's own text (its precision) for an odd count and
# averages the middle two for an even one.
function median(key, col, runs,    m, k, j, t, ts, v, s) {
    m = 0
    for (k = 1; k <= runs; k++) {
        t = val[key, col, k]
        if (t == "" || t !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/)
            continue
        m++
        v[m] = t + 0
        s[m] = t
    }
    if (m == 0)
        return val[key, col, 1]
    for (k = 2; k <= m; k++) {          # insertion sort: a handful of runs
        t = v[k]
        ts = s[k]
        for (j = k - 1; j >= 1 && v[j] > t; j--) {
            v[j + 1] = v[j]
            s[j + 1] = s[j]
        }
        v[j + 1] = t
        s[j + 1] = ts
    }
    if (m % 2)
        return s[(m + 1) / 2]
    if (v[m / 2] == v[m / 2 + 1])
        return s[m / 2]
    return sprintf("%.4f", (v[m / 2] + v[m / 2 + 1]) / 2)
}

END {
    for (i = 1; i <= ncomments; i++)
        print comments[i]
    print "# median over " nfiles " runs of every numeric column, per bench,case,size"
    if (header != "")
        print header
    for (r = 1; r <= nkeys; r++) {
        key = order[r]
        line = key
        for (i = 4; i <= width[key]; i++)
            line = line OFS median(key, i, count[key])
        print line
    }
}
