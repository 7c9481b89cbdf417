// Typeset math at build time with KaTeX, so pages need no math JavaScript.
// Protocol: each stdin line is a JSON array of {tex, display}; each stdout line
// is a JSON array of {html} or {error}, in the same order.
const katex = require("katex");
const readline = require("readline");

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const rendered = JSON.parse(line).map(({ tex, display }) => {
    try {
      return { html: katex.renderToString(tex, { displayMode: display, throwOnError: true }) };
    } catch (error) {
      return { error: String(error.message || error) };
    }
  });
  process.stdout.write(JSON.stringify(rendered) + "\n");
});
