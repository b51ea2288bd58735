# Turn the text a Sandia OpenSHMEM shmem_perf_suite program prints into CSV
# rows "bench,case,size,value,rate" (the key columns of median_runs.awk):
#   latency programs: case long_p_pingpong / long_g / int_p / int_g (the
#     titled single-size tables) and stream (the untitled size sweep:
#     shmem_putmem + shmem_quiet, or a blocking shmem_getmem, per
#     iteration); value in us, rate empty
#   bandwidth programs: case uni or bi; value MB/s, rate messages/s
#   awk -v prog=shmem_bw_put_perf -f sos_perf.awk output.txt
# Works with mawk and gawk.

BEGIN { OFS = ","; title = ""; bw = ""; sect = ""; print "bench,case,size,value,rate" }

/results:[[:space:]]*$/ {
    t = $0
    sub(/^[[:space:]]*(Ping-Pong[[:space:]]+)?shmem_/, "", t)
    sub(/[[:space:]]+results:.*$/, "", t)
    title = ($0 ~ /Ping-Pong/) ? t "_pingpong" : t
    next
}

/Bandwidth test type:/ {
    bw = ($0 ~ /Bi-dir/) ? "bi" : "uni"
    next
}

/^[[:space:]]*Message Size/ {
    sect = title != "" ? title : bw != "" ? bw : "stream"
    title = ""
    next
}

sect != "" && /^[[:space:]]*[0-9]+[[:space:]]+[0-9.]+([[:space:]]+[0-9.]+)?[[:space:]]*$/ {
    print prog, sect, $1, $2, (NF >= 3 ? $3 : "")
}
