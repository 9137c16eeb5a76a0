# Writes the file IN as a C++ raw string literal named NAME into OUT (only
# when the contents change), so a source-tree file can be compiled in.
# Usage: cmake -DIN=<file> -DOUT=<header> -DNAME=<identifier> -P EmbedFile.cmake
file(READ "${IN}" content)
set(text "// Generated from ${IN} by EmbedFile.cmake; do not edit.\n")
string(APPEND text "static const char ${NAME}[] = R\"boo_embed(${content})boo_embed\";\n")
file(WRITE "${OUT}.tmp" "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
