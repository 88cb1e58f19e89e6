# Doxygen INPUT_FILTER for include/runloop/*.h (docs/api/Doxyfile.in): the
# headers use plain /* */ comments; this makes Doxygen read them as docs
# without changing the headers.  Line numbers are kept.
#   - the comment opening the file becomes the file's description (\file);
#   - a comment directly followed by a declaration (no blank line, not a
#     preprocessor conditional) documents that declaration;
#   - a trailing one-line comment documents its member (/**< ... */).
# Section banners (/* ----) and other comments stay plain.
function flush(doc) {
    if (doc) sub(/^\/\*/, "/**", buf[1])
    for (i = 1; i <= n; i++) print buf[i]
    n = 0; pending = 0
}
{
    line = $0
    if (n > 0 && !open && pending) {          # a comment just ended: look at this line
        flush(line !~ /^[ \t]*$/ && line !~ /^[ \t]*(\/\*|\/\/|#[ \t]*(if|ifdef|ifndef|else|elif|endif|include|error|pragma))/)
    }
    if (n == 0 && !open && line ~ /^[ \t]*\/\*([^*]|$)/ && line !~ /^[ \t]*\/\* -{4}/) {
        if (NR == 1 && line ~ /^\/\*[ \t]*$/) { print "/** \\file"; next }
        n = 1; buf[1] = line; open = (line !~ /\*\//); pending = !open; next
    }
    if (open) { buf[++n] = line; if (line ~ /\*\//) { open = 0; pending = 1 }; next }
    if (line !~ /^[ \t]*#[ \t]*(include|if|ifdef|ifndef|else|elif|endif)/ && line ~ /[^ \t].*\/\*[^*<].*\*\/[ \t]*$/)
        sub(/\/\*/, "/**<", line)
    print line
}
END { if (n > 0) flush(0) }
