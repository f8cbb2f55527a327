/** The OAuth 2.0 token endpoint's path: its route answers there, and the methods policy allows POST there. */
export const TOKEN_PATH = '/oauth/token';
