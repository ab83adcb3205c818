import { useState } from "preact/hooks";
import { applyTheme, nextTheme, storedTheme, type Theme } from "../theme.ts";

/** The top bar's theme button: system, light, dark in turn, remembered in this browser. */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme());
  return (
    <button
      type="button"
      class="btn btn-ghost"
      title={`Theme: ${theme} (click to change)`}
      aria-label={`Colour theme: ${theme}. Change`}
      onClick={() => {
        const t = nextTheme(theme);
        applyTheme(t);
        setTheme(t);
      }}
    >
      {theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}
    </button>
  );
}
