/**
 * Whether a name is one git allows for a branch (`git check-ref-format --branch`, the rules that
 * matter here), checked before git sees it: a name that starts with `-` could read as an option.
 */
export function isBranchName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 250 &&
    name !== '@' &&
    !/^[-/.]|\.\.|@\{|\/\/|\/\.|\.lock$|\.lock\/|\/$|\.$|[\s~^:?*[\\\x00-\x1f\x7f]/.test(name)
  );
}
