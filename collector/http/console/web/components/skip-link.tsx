/** The first control of the page: moves the keyboard past the top bar to the view (`#content`). */
export function SkipLink() {
  return (
    <button type="button" class="skip-link btn" onClick={() => document.getElementById("content")?.focus()}>
      Skip to content
    </button>
  );
}
