import { OptionError } from "../../src/config/options.ts";

/**
 * Reads a password for `auth add` from standard input: typed twice without echo on a
 * terminal, or the first line of whatever is piped in (`... auth add ... < file`).
 */
export async function readPasswordFromStdin(): Promise<string> {
  if (!process.stdin.isTTY) {
    const text = await new Response(Bun.stdin.stream()).text();
    const line = text.split(/\r?\n/)[0] ?? "";
    if (line === "") throw new OptionError("no password: give --password-file, OUTPOST_AUTH_PASSWORD, --generate-password, or pipe it in");
    return line;
  }
  const first = await promptHidden("Password: ");
  const second = await promptHidden("Again: ");
  if (first !== second) throw new OptionError("the two passwords differ");
  if (first === "") throw new OptionError("the password is empty");
  return first;
}

function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    process.stderr.write(prompt);
    const stdin = process.stdin;
    stdin.setRawMode(true);
    stdin.resume();
    let typed = "";
    const done = (err?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new OptionError("cancelled"));
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on("data", onData);
  });
}
