export * from './app-error';
export * from './to-app-error';
export * from './http-envelope';
export * from './reply-too-large';
